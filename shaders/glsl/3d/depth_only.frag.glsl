/* Depth comes from fixed-function depth writes; the stage only has to exist. */
void main() {}
