float f(float x)
{
    __asm__("nop");
    return x;
}
