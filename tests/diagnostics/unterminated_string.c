int f(int x)
{
    const char *s = "abc;
    return x;
}
