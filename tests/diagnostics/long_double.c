long double f(long double x)
{
    return x;
}
