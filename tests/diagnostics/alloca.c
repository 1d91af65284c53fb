#include <alloca.h>

int f(int n)
{
    int *a = alloca(16);
    a[0] = n;
    return a[0];
}
