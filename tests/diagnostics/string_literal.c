int f(int x)
{
    const char *s = "abc";
    return s[x & 3];
}
