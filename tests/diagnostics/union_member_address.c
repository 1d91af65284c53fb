#include <stdint.h>
extern void g(uint32_t *);
union u { double d; uint32_t w[2]; };

double f(double x)
{
    union u v;
    v.d = x;
    g(&v.w[1]);
    return v.d;
}
