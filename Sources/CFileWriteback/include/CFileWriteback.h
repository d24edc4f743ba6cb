#ifndef C_FILE_WRITEBACK_H
#define C_FILE_WRITEBACK_H

#include <stdint.h>

/// Starts writeback of bytes [offset, offset + length) of `fd` without waiting for it and
/// without flushing the drive's cache (Linux `sync_file_range` with SYNC_FILE_RANGE_WRITE,
/// which Swift's Glibc module does not export). Returns 0, or -1 with errno set; a no-op
/// returning 0 where the call does not exist.
int cfw_start_writeback(int fd, int64_t offset, int64_t length);

/// Writes every file system buffer of the file system holding `fd` to disk and flushes the
/// drive's cache once (Linux `syncfs`). Since Linux 5.8 it fails with the first writeback error
/// on that file system since `fd` was opened. Returns 0, or -1 with errno set (ENOSYS where the
/// call does not exist).
int cfw_sync_file_system(int fd);

/// Writes `fd`'s dirty pages and waits for them, without flushing the drive's cache and without
/// the file's metadata (Linux `sync_file_range` with WAIT_BEFORE, WRITE and WAIT_AFTER); fails
/// with any writeback error of the file since `fd` was opened or last reported one. Where the
/// call does not exist, `fsync`. Returns 0, or -1 with errno set.
int cfw_wait_writeback(int fd);

/// How many of `fd`'s pages in the page cache are dirty and how many are being written back
/// (Linux 6.5 `cachestat`): what tests read to see that a flush left nothing unwritten. Returns
/// 0, or -1 with errno set (ENOSYS where the call does not exist).
int cfw_page_cache_state(int fd, int64_t *dirty, int64_t *writeback);

/// Copies up to `length` bytes at `offset` of `source` to the current position of
/// `destination` inside the kernel (Linux `copy_file_range`, which Swift's Glibc module does not
/// export), advancing `destination`'s position but not `source`'s. Returns the bytes copied
/// (0 at the end of `source`), or -1 with errno set (ENOSYS where the call does not exist;
/// EXDEV, EINVAL or EOPNOTSUPP where the kernel cannot copy between these two files).
int64_t cfw_copy_range(int source, int64_t offset, int destination, int64_t length);

/// Renames `from` (in folder `fromFolder`) to `to` (in folder `toFolder`) only if nothing is
/// named `to`: `renameat2(RENAME_NOREPLACE)`, or where the file system does not support it,
/// `linkat` then `unlinkat` (also atomic about the target). Returns 0, or -1 with errno set
/// (EEXIST when `to` exists).
int cfw_rename_noreplace(int fromFolder, const char *from, int toFolder, const char *to);

/// Names the calling thread as `ps -L`, `top -H` and profilers show it (at most 15 bytes are
/// kept), which Swift's Glibc module cannot do (`pthread_setname_np` and `prctl` are not
/// exported). Returns 0, or an error number.
int cfw_name_this_thread(const char *name);

/// Opens a new regular file without a name in `folder`'s file system (`O_TMPFILE`, read and
/// write, mode 0600 less the umask), or -1 with `errno` set: `EOPNOTSUPP` where the file system
/// cannot, `EISDIR` or `EINVAL` where the kernel cannot (Linux before 3.11), `ENOSYS` elsewhere.
int cfw_open_unnamed(int folder);

/// Gives the unnamed file `fd` (from `cfw_open_unnamed`) the name `to` in `toFolder`, never
/// over an existing name (`EEXIST`). It links `/proc/self/fd/<fd>`, as open(2) documents: a
/// link by descriptor alone (`AT_EMPTY_PATH`) needs a capability a cache owner lacks.
/// Returns 0, or -1 with `errno` set.
int cfw_link_unnamed(int fd, int toFolder, const char *to);

#endif
