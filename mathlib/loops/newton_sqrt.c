/* Newton iteration for sqrt that stops early per lane when the step stops changing. */
float newton_sqrt(float a)
{
  if (!(a > 0.0f) || a > 1e30f)
    return a == 0.0f ? a : (a > 0.0f ? a : 0.0f);
  float x = a > 1.0f ? a : 1.0f;
  for (int i = 0; i < 64; i++) {
    float next = 0.5f * (x + a / x);
    if (next == x)
      break;
    x = next;
  }
  return x;
}
