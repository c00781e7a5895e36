// libvta's own symbol: the version of the library a program runs with.
#include "vta/version.h"

extern "C" const char* VTAVersion(void) { return VTA_VERSION_STRING; }
