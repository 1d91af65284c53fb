#include <stdatomic.h>

int f(_Atomic int x)
{
    return x + 1;
}
