/* Mutual recursion across files: is_even here, is_odd in stats.c. */
extern int calls;
int is_odd(int n);
static const char *name(void) { return "parity.c"; }
int is_even(int n) {
    calls++;
    return n == 0 ? 1 : is_odd(n - 1);
}
