#include <setjmp.h>

static jmp_buf env;

int f(int x)
{
    if (setjmp(env))
        return 1;
    return x;
}
