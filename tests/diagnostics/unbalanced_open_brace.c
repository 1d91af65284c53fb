int f(int x)
{
    if (x) {
        x = 1;
    return x;
}
