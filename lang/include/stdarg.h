/* <stdarg.h> as parc provides it, for variadic functions parc defines.
 * parc passes their variadic arguments in its own convention (a block of
 * 16-byte slots in the caller's frame: a kind word and the promoted value,
 * ended by a slot of kind 3; its address is a hidden last parameter), so
 * `va_list` is a `char *` to the next slot and `va_arg` reads the value
 * word and steps to the next slot. `vprintf` and the rest of <stdio.h>'s
 * `v` functions take such a `va_list`. A parc variadic function cannot be
 * called by C code (through its address) with the C calling convention. */
#ifndef _PARC_STDARG_H
#define _PARC_STDARG_H

typedef char *va_list;
typedef char *__gnuc_va_list;

#define va_start(ap, last) ((void)((ap) = __builtin_va_start(last)))
#define va_arg(ap, type) (*(type *)(((ap) += 16) - 8))
#define va_end(ap) ((void)(ap))
#define va_copy(dest, src) ((void)((dest) = (src)))
#define __va_copy(dest, src) ((void)((dest) = (src)))

#endif
