/* Driver of fault.pc: the second list lacks its end marker, so `length`
   walks off it through a null `next`. */
#include <stdio.h>
#include "libfault.h"

int main(void)
{
    struct Node end = {-1, 0};
    struct Node a2 = {2, &end}, a1 = {1, &a2};
    struct Node b1 = {5, 0};
    printf("total_lengths = %d\n", total_lengths(&a1, &a1));
    fflush(stdout);
    printf("total_lengths = %d\n", total_lengths(&a1, &b1));
    return 0;
}
