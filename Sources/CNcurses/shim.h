// ncurses for Swift 6: the globals (stdscr, LINES, COLS) fail strict
// concurrency and the macros (A_BOLD, COLOR_PAIR, getmaxyx) do not import,
// so small inline functions stand in for them. SwiftPM drops pkg-config's
// -D flags, hence the feature macros here.
#ifndef CLOUDNOTES_CNCURSES_SHIM_H
#define CLOUDNOTES_CNCURSES_SHIM_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

static inline WINDOW *cn_stdscr(void) { return stdscr; }
static inline int cn_lines(void) { return LINES; }
static inline int cn_cols(void) { return COLS; }
static inline int cn_colors(void) { return COLORS; }
static inline int cn_color_pairs(void) { return COLOR_PAIRS; }

static inline attr_t cn_a_normal(void) { return A_NORMAL; }
static inline attr_t cn_a_bold(void) { return A_BOLD; }
static inline attr_t cn_a_dim(void) { return A_DIM; }
static inline attr_t cn_a_reverse(void) { return A_REVERSE; }
static inline attr_t cn_a_underline(void) { return A_UNDERLINE; }

static inline int cn_key_resize(void) { return KEY_RESIZE; }
static inline int cn_key_code_yes(void) { return KEY_CODE_YES; }

static inline void cn_set_locale(void) { setlocale(LC_ALL, ""); }

/// Writes one cell: a grapheme's scalars with attributes and a colour pair.
static inline int cn_put_cell(int y, int x, const wchar_t *chars, attr_t attrs, short pair) {
    cchar_t cell;
    if (setcchar(&cell, chars, attrs, pair, NULL) != OK) return ERR;
    return mvwadd_wch(stdscr, y, x, &cell);
}

static inline int cn_get_wch(wint_t *out) { return wget_wch(stdscr, out); }

/// Asks the terminal for mouse presses and the wheel (reported at once: no waiting to tell clicks apart).
static inline void cn_mouse_on(void) {
    mousemask(ALL_MOUSE_EVENTS, NULL);
    mouseinterval(0);
}

/// Asks the terminal to mark pasted text (bracketed paste) or to stop; written where ncurses writes.
static inline void cn_bracketed_paste(int on) {
    putp(on ? "\033[?2004h" : "\033[?2004l");
    fflush(NULL);
}

static inline int cn_key_mouse(void) { return KEY_MOUSE; }

/// The mouse event ncurses read: 1 the first button pressed, 2 the wheel up, 3 the wheel down, 0 anything
/// else (a release, another button); where, in cells.
static inline int cn_read_mouse(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    *x = event.x;
    *y = event.y;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    if (event.bstate & BUTTON4_PRESSED) return 2;
#ifdef BUTTON5_PRESSED
    if (event.bstate & BUTTON5_PRESSED) return 3;
#endif
    return 0;
}

#endif
