int f(int x)
{
    int y = 0;
    switch (x & 3) {
    case 0:
        y = 1;
    case 1:
        y += 2;
        break;
    default:
        y = 7;
    }
    return y;
}
