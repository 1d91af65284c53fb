double _Complex f(double _Complex z)
{
    return z * z;
}
