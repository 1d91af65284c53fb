#include <setjmp.h>

static jmp_buf env;

int f(int x)
{
    if (x)
        longjmp(env, 1);
    return x;
}
