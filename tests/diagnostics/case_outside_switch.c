int f(int x)
{
case 1:
    return x;
}
