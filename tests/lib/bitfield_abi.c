/* Driver of bitfield_abi.pc: the structs are the header's. */
#include <stdio.h>
#include "libbitfield_abi.h"

int main(void)
{
    struct Header h = {0};
    h.version = 14;
    h.urgent = 0;
    h.delta = -30;
    h.tag = 'a';
    h.stamp = 1099511627000UL;
    struct Header n = next_header(h, -5);
    printf("header %u %u %d %c %lu -> %u %u %d %c %lu\n", h.version, h.urgent, h.delta, h.tag,
           (unsigned long)h.stamp, n.version, n.urgent, n.delta, n.tag, (unsigned long)n.stamp);
    struct Small s = {7, -2, 1};
    printf("small_sum = %d\n", small_sum(s));
    lower_level(&s);
    printf("lowered %d %d %d, sum %d\n", s.kind, s.level, s.on, small_sum(s));
    printf("sizes: parc %ld, cc %ld\n", header_size(),
           (long)sizeof(struct Header) * 100 + (long)sizeof(struct Small));
    return 0;
}
