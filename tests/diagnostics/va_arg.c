#include <stdarg.h>

int f(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int v = va_arg(ap, int);
    va_end(ap);
    return v;
}
