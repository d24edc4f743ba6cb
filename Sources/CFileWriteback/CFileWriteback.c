#define _GNU_SOURCE
#include "CFileWriteback.h"

#include <fcntl.h>

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
