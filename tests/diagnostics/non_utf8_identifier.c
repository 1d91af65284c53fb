int f(int x)
{
    int café = x;
    return café;
}
