#define _GNU_SOURCE
#include "CFileWriteback.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#include <unistd.h>

int cfw_start_writeback(int fd, int64_t offset, int64_t length) {
#if defined(__linux__)
  return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
  (void)offset;
  (void)length;
  return 0;
#endif
}

int cfw_sync_file_system(int fd) {
#if defined(__linux__)
  return syncfs(fd);
#else
  (void)fd;
  errno = ENOSYS;
  return -1;
#endif
}

int cfw_wait_writeback(int fd) {
#if defined(__linux__)
  return sync_file_range(
      fd, 0, 0,
      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
#else
  return fsync(fd);
#endif
}

int cfw_page_cache_state(int fd, int64_t *dirty, int64_t *writeback) {
#if defined(__linux__)
  // cachestat(2), Linux 6.5: the same number on every architecture; older headers lack it.
  struct {
    uint64_t offset, length;
  } range = {0, 0};
  struct {
    uint64_t cached, dirty, writeback, evicted, recentlyEvicted;
  } state;
#if defined(SYS_cachestat)
  long number = SYS_cachestat;
#else
  long number = 451;
#endif
  if (syscall(number, fd, &range, &state, 0) != 0) return -1;
  *dirty = (int64_t)state.dirty;
  *writeback = (int64_t)state.writeback;
  return 0;
#else
  (void)fd;
  (void)dirty;
  (void)writeback;
  errno = ENOSYS;
  return -1;
#endif
}

int64_t cfw_copy_range(int source, int64_t offset, int destination, int64_t length) {
#if defined(__linux__)
  off_t in = (off_t)offset;
  return (int64_t)copy_file_range(source, &in, destination, NULL, (size_t)length, 0);
#else
  (void)source;
  (void)offset;
  (void)destination;
  (void)length;
  errno = ENOSYS;
  return -1;
#endif
}

int cfw_rename_noreplace(int fromFolder, const char *from, int toFolder, const char *to) {
#if defined(__linux__) && defined(RENAME_NOREPLACE)
  if (renameat2(fromFolder, from, toFolder, to, RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
#endif
  if (linkat(fromFolder, from, toFolder, to, 0) != 0) return -1;
  if (unlinkat(fromFolder, from, 0) != 0) {
    int saved = errno;
    (void)unlinkat(toFolder, to, 0);
    errno = saved;
    return -1;
  }
  return 0;
}

int cfw_name_this_thread(const char *name) {
#ifdef __linux__
  char shortened[16];
  strncpy(shortened, name, sizeof shortened - 1);
  shortened[sizeof shortened - 1] = 0;
  return pthread_setname_np(pthread_self(), shortened);
#else
  (void)name;
  return 0;
#endif
}

int cfw_open_unnamed(int folder) {
#if defined(__linux__) && defined(O_TMPFILE)
  return openat(folder, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
  (void)folder;
  errno = ENOSYS;
  return -1;
#endif
}

int cfw_link_unnamed(int fd, int toFolder, const char *to) {
#if defined(__linux__)
  char path[32];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  return linkat(AT_FDCWD, path, toFolder, to, AT_SYMLINK_FOLLOW);
#else
  (void)fd;
  (void)toFolder;
  (void)to;
  errno = ENOSYS;
  return -1;
#endif
}
