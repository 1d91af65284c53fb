#include "no_such_header.h"

int f(int x)
{
    return x;
}
