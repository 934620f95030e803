#include "field_workload.h"
