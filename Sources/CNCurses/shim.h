#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>
#endif
