#ifndef CTERMINALGUARD_H
#define CTERMINALGUARD_H
/// Placeholder; the curses backend fills this in.
int cterminalguard_version(void);
#endif
