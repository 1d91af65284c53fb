float f(float x)
{
    return x % 2;
}
