foo_t f(foo_t x)
{
    return x;
}
