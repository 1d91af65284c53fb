/* Mandelbrot escape time: a data-dependent while loop with a cap (up to 1000 iterations). */
int mandelbrot(float cr, float ci)
{
  float zr = 0.0f, zi = 0.0f;
  int n = 0;
  while (n < 1000 && zr * zr + zi * zi <= 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    n++;
  }
  return n;
}
