int f(int x)
{
    return ({ int t = x; t + 1; });
}
