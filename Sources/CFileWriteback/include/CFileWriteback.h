#ifndef C_FILE_WRITEBACK_H
#define C_FILE_WRITEBACK_H

#include <stdint.h>

/// Starts writeback of bytes [offset, offset + length) of `fd` without waiting for it and
/// without flushing the drive's cache (Linux `sync_file_range` with SYNC_FILE_RANGE_WRITE,
/// which Swift's Glibc module does not export). Returns 0, or -1 with errno set; a no-op
/// returning 0 where the call does not exist.
int cfw_start_writeback(int fd, int64_t offset, int64_t length);

#endif
