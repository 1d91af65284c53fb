int f(int x)
{
    int y = x *