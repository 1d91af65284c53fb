_Float16 f(_Float16 x)
{
    return x + 1;
}
