int f(x)
    short x;
{
    return x;
}
