#include <errno.h>
#include <math.h>

float f(float x)
{
    float y = logf(x);
    if (errno == ERANGE)
        return 0.0f;
    return y;
}
