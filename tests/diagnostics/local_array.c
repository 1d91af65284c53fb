int f(int x)
{
    int a[4] = {1, 2, 3, 4};
    a[x & 3] = 5;
    return a[0];
}
