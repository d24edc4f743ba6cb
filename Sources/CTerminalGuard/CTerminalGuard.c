#include "CTerminalGuard.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

// MARK: - State shared with the handlers (written only while no handler is installed)

static struct termios saved_modes;
static int saved_modes_fd = -1;
static char restore_sequence[512];
static size_t restore_sequence_length = 0;
static int restore_sequence_fd = -1;
static volatile sig_atomic_t pending_stop_signal = 0;

static const int fatal_signals[] = {SIGILL, SIGSEGV, SIGBUS, SIGFPE, SIGTRAP, SIGABRT};
// SIGHUP: the terminal went away (a dropped ssh session); end cleanly instead of spinning on a
// dead tty. SIGQUIT (Ctrl-\): a request to quit like Ctrl-C, as htop and less treat it; left to
// Swift's crash reporter it would paint a backtrace over the screen while keys still reach the
// dashboard, and leave the fatal-signal handlers reset to the default.
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define FATAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])
#define STOP_COUNT (sizeof stop_signals / sizeof stop_signals[0])
static struct sigaction previous_fatal[FATAL_COUNT];
static struct sigaction previous_stop[STOP_COUNT];
static int fatal_installed = 0;
static int stop_installed = 0;
// Read from any thread (a logger asking whether curses owns the terminal).
static atomic_int guard_armed = 0;

// MARK: - Terminal modes and the restore sequence

int ctg_save_terminal_modes(int fd) {
    if (tcgetattr(fd, &saved_modes) != 0) return -1;
    saved_modes_fd = fd;
    return 0;
}

int ctg_restore_terminal_modes(void) {
    if (saved_modes_fd < 0) return -1;
    return tcsetattr(saved_modes_fd, TCSANOW, &saved_modes);
}

int ctg_set_restore_sequence(int fd, const char *sequence) {
    size_t length = strlen(sequence);
    if (length >= sizeof restore_sequence) return -1;
    memcpy(restore_sequence, sequence, length);
    restore_sequence_length = length;
    restore_sequence_fd = fd;
    return 0;
}

// Async-signal-safe: tcsetattr and write only; errors are ignored because nothing better can be
// done while the process dies.
static void restore_from_handler(void) {
    if (saved_modes_fd >= 0) (void)tcsetattr(saved_modes_fd, TCSANOW, &saved_modes);
    size_t written = 0;
    while (restore_sequence_fd >= 0 && written < restore_sequence_length) {
        ssize_t n = write(restore_sequence_fd, restore_sequence + written,
                          restore_sequence_length - written);
        if (n <= 0) break;
        written += (size_t)n;
    }
}

// MARK: - Handlers

static void on_stop_signal(int signal_number) {
    if (pending_stop_signal != 0) {
        // The loop did not react to the first one (stuck in the app): leave now, terminal restored.
        restore_from_handler();
        _exit(128 + signal_number);
    }
    pending_stop_signal = signal_number;
}

static void on_fatal_signal(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    restore_from_handler();
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        if (fatal_signals[i] == signal_number) sigaction(signal_number, &previous_fatal[i], NULL);
    }
    // A fault (si_code > 0) repeats when the faulting instruction runs again, now reaching the
    // previous handler (Swift's backtracer) with the real context. A sent signal (kill, raise,
    // abort) does not repeat, so send it again; it stays blocked until this handler returns.
    if (info == NULL || info->si_code <= 0) raise(signal_number);
}

// MARK: - Installing and removing

int ctg_install_stop_handlers(void) {
    if (stop_installed) return 0;
    pending_stop_signal = 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: wget_wch returns early, so the loop sees the flag soon
    for (size_t i = 0; i < STOP_COUNT; i++) {
        if (sigaction(stop_signals[i], &action, &previous_stop[i]) != 0) {
            while (i-- > 0) sigaction(stop_signals[i], &previous_stop[i], NULL);
            return -1;
        }
    }
    stop_installed = 1;
    atomic_store(&guard_armed, 1);
    return 0;
}

int ctg_install_fatal_handlers(void) {
    if (fatal_installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    for (size_t i = 0; i < FATAL_COUNT; i++) {
        if (sigaction(fatal_signals[i], &action, &previous_fatal[i]) != 0) {
            while (i-- > 0) sigaction(fatal_signals[i], &previous_fatal[i], NULL);
            return -1;
        }
    }
    fatal_installed = 1;
    return 0;
}

int ctg_pending_stop_signal(void) { return (int)pending_stop_signal; }

int ctg_guard_armed(void) { return atomic_load(&guard_armed); }

void ctg_uninstall_handlers(void) {
    if (fatal_installed) {
        for (size_t i = 0; i < FATAL_COUNT; i++) {
            sigaction(fatal_signals[i], &previous_fatal[i], NULL);
        }
        fatal_installed = 0;
    }
    if (stop_installed) {
        for (size_t i = 0; i < STOP_COUNT; i++) {
            sigaction(stop_signals[i], &previous_stop[i], NULL);
        }
        stop_installed = 0;
    }
    atomic_store(&guard_armed, 0);
    pending_stop_signal = 0;
}
