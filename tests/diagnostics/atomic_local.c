int f(int x)
{
    _Atomic int y = x;
    return y;
}
