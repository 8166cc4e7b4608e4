/*
 * Test-only shim for running the win-x64 package under Wine 8 (docs/install.md, "Windows under
 * Wine"). Built with mingw-w64 by tests/_helpers/wine.ts as bcryptprimitives.dll and copied next
 * to deno.exe in the test's own copy of the package; it is never part of a package.
 *
 * 1. Exports ProcessPrng (bcryptprimitives.dll, Windows 10+; Wine 8 lacks the DLL), which Rust's
 *    standard library imports for random bytes; filled through RtlGenRandom (advapi32).
 * 2. On load, renames kernelbase.dll's export "VirtualAlloc2" to "VirtualAlloc1" (the sort order
 *    of the export names is kept, so every other lookup still finds its name). Wine 8's
 *    VirtualAlloc2 refuses MEM_RESERVE_PLACEHOLDER; V8 then aborts in
 *    SegmentedTable::InitializeTable, and takes its older allocation path when the export is
 *    absent.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
  while (size > 0) {
    ULONG chunk = size > 0x10000000 ? 0x10000000 : (ULONG)size;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    size -= chunk;
  }
  return TRUE;
}

static void hide_virtualalloc2(void) {
  BYTE *base = (BYTE *)GetModuleHandleA("kernelbase.dll");
  if (!base) return;
  IMAGE_DOS_HEADER *dos = (IMAGE_DOS_HEADER *)base;
  IMAGE_NT_HEADERS *nt = (IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
  IMAGE_DATA_DIRECTORY dir = nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
  if (!dir.VirtualAddress) return;
  IMAGE_EXPORT_DIRECTORY *exp = (IMAGE_EXPORT_DIRECTORY *)(base + dir.VirtualAddress);
  DWORD *names = (DWORD *)(base + exp->AddressOfNames);
  for (DWORD i = 0; i < exp->NumberOfNames; i++) {
    char *name = (char *)(base + names[i]);
    if (lstrcmpA(name, "VirtualAlloc2") == 0) {
      DWORD old;
      if (VirtualProtect(name, 16, PAGE_READWRITE, &old)) {
        name[12] = '1';
        VirtualProtect(name, 16, old, &old);
      }
      return;
    }
  }
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved) {
  (void)instance;
  (void)reserved;
  if (reason == DLL_PROCESS_ATTACH) hide_virtualalloc2();
  return TRUE;
}
