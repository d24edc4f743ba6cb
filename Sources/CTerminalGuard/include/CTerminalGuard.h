#ifndef CTERMINALGUARD_H
#define CTERMINALGUARD_H

// Restores the terminal when the process dies while curses owns it, and turns SIGINT, SIGTERM,
// SIGHUP and SIGQUIT into a flag the terminal loop polls. Everything a signal handler touches is precomputed here, so the
// handlers only call async-signal-safe functions (tcsetattr, write, sigaction, raise, _exit).

/// Saves the terminal modes of `fd` (call before newterm); returns 0, or -1 when fd is no terminal.
int ctg_save_terminal_modes(int fd);

/// Puts the saved terminal modes back on the saved descriptor; returns 0, or -1 when none are saved.
int ctg_restore_terminal_modes(void);

/// Sets the bytes written to `fd` when the terminal must be restored from a signal handler
/// (sgr0, cnorm, rmkx, rmcup); returns 0, or -1 when the sequence is longer than the buffer.
int ctg_set_restore_sequence(int fd, const char *sequence);

/// Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that record the signal for ctg_pending_stop_signal; a
/// second one restores the terminal and exits with 128 + signal. Call before newterm, so ncurses
/// keeps its own handlers off. Returns 0, or -1 when sigaction fails.
int ctg_install_stop_handlers(void);

/// Installs handlers for SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGTRAP and SIGABRT that restore the
/// terminal and then hand the signal to the handler installed before them. Returns 0, or -1.
int ctg_install_fatal_handlers(void);

/// The SIGINT, SIGTERM, SIGHUP or SIGQUIT that arrived since the stop handlers were installed, or 0.
int ctg_pending_stop_signal(void);

/// 1 from ctg_install_stop_handlers to ctg_uninstall_handlers (curses owns the terminal), else 0.
/// Safe to call from any thread.
int ctg_guard_armed(void);

/// Re-installs every handler that was in place before ctg_install_*, and forgets the pending
/// stop signal.
void ctg_uninstall_handlers(void);

#endif
