/**
 * \file mxn.h
 * Umbrella header of libmxn, the core of the MxN reader: load-time MxN
 * repartitioning of Exodus II datasets (see core/README.md).
 */
#ifndef MXN_MXN_H
#define MXN_MXN_H

#include "mxn/status.h"
#include "mxn/memory.h"
#include "mxn/idset.h"
#include "mxn/cover.h"
#include "mxn/dataset.h"
#include "mxn/extract.h"
#include "mxn/write.h"
#include "mxn/partition.h"
#include "mxn/compare.h"
#include "mxn/forms.h"
#include "mxn/directory.h"
#include "mxn/load.h"
#include "mxn/repart.h"
#include "mxn/topology.h"
#include "mxn/series.h"

/* The project's one statement of its version (the top CMakeLists.txt reads
 * it from here). */
#define MXN_VERSION_STRING "0.1.0"

#endif /* MXN_MXN_H */
