int f(int x)
{
    if (x)
        goto inside;
    while (x < 10) {
inside:
        x++;
    }
    return x;
}
