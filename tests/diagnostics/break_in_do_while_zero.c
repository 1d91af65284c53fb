int f(int x)
{
    do {
        if (x)
            break;
        x = 2;
    } while (0);
    return x;
}
