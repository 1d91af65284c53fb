#if 1
int f(int x)
{
    return x;
}
