#include <string.h>

int f(float x)
{
    double d;
    memcpy(&d, &x, sizeof x);
    return (int) d;
}
