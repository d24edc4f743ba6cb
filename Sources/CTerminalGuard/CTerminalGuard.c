#include "CTerminalGuard.h"
int cterminalguard_version(void) { return 1; }
