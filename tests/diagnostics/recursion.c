int f(int x)
{
    if (x > 0)
        return f(x - 1);
    return 0;
}
