#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H
// The wide-character API (wget_wch, cchar_t) without touching glibc's feature macros.
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

// Accessors for what Swift cannot import: NCURSES_BITS macros, globals that Swift 6 rejects as not
// concurrency-safe, and macros that assign to their arguments. Each is one line on purpose.

static inline attr_t cncurses_a_normal(void) { return A_NORMAL; }
static inline attr_t cncurses_a_bold(void) { return A_BOLD; }
static inline attr_t cncurses_a_reverse(void) { return A_REVERSE; }
static inline attr_t cncurses_a_dim(void) { return A_DIM; }
static inline attr_t cncurses_a_underline(void) { return A_UNDERLINE; }

static inline WINDOW *cncurses_stdscr(void) { return stdscr; }
static inline int cncurses_colors(void) { return COLORS; }
static inline int cncurses_color_pairs(void) { return COLOR_PAIRS; }
static inline int cncurses_cchar_max(void) { return CCHARW_MAX; }

// glibc declares wcwidth only under _XOPEN_SOURCE, which SwiftPM does not let a system library set;
// this redeclaration matches glibc's.
extern int wcwidth(wchar_t character);
// Columns a character takes in the current locale (2 for wide, 0 for combining, -1 if unprintable).
static inline int cncurses_wcwidth(wchar_t character) { return wcwidth(character); }

// newterm on the process's stdio; returns NULL (instead of exiting, as initscr does) when TERM is
// unknown.
static inline SCREEN *cncurses_newterm_stdio(void) { return newterm(NULL, stdout, stdin); }

// A terminfo string capability of the current terminal, or NULL when absent or not a string
// (tigetstr returns (char *)-1 for the latter).
static inline const char *cncurses_string_capability(const char *name) {
    char *value = tigetstr(name);
    return (value == NULL || value == (char *)-1) ? NULL : value;
}

// Loads the terminfo entry for `term` without starting curses and reports whether it can address
// the cursor: 1 yes, 0 no `cup`, -1 unknown terminal.
static inline int cncurses_probe_cursor_addressing(const char *term, int fd) {
    int error = 0;
    if (setupterm(term, fd, &error) != OK) return -1;
    int usable = cncurses_string_capability("cup") != NULL;
    del_curterm(cur_term);
    return usable;
}

// Draws one grapheme (a spacing character plus combining ones, NUL-terminated) at (y, x).
static inline int cncurses_put(WINDOW *window, int y, int x, const wchar_t *text, attr_t attrs,
                               short pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attrs, pair, NULL) != OK) return ERR;
    return mvwadd_wch(window, y, x, &cell);
}

#endif
