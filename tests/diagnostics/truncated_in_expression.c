int f(int x)
{
    return (x + (x * 3