/* Private to the core: what the read (read/) offers the load besides the
 * plan (plan.h). */
#ifndef MXN_READ_H
#define MXN_READ_H

#include "structure/structure.h"

/* The member a step reads dataset global variable d from: the first that
 * lists it (member 0 as a rule), its record made; -1 with the error in
 * ds->err if a record cannot be (read_step.c). */
int mxn__global_source(mxn_dataset_t *ds, int d);

#endif /* MXN_READ_H */
