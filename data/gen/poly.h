/* mxn_gen's polyhedral and polygonal types (poly.c). */
#ifndef MXN_GEN_POLY_H
#define MXN_GEN_POLY_H

/* Parse the command line of `mxn_gen --type poly-hex|poly-mixed|polygon
 * ...` and write the file. Returns the exit status (0, 1 I/O, 2 usage). */
int mxn_gen_poly_main(int argc, char **argv);

#endif
