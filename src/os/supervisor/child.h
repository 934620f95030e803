#include "supervisor.h"
