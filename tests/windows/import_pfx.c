/*
 * Test helper (tests/windows/win32_api_test.ts): imports a PKCS#12 file into the current
 * user's personal store (CurrentUser\My), as a person double-clicking the .pfx would.
 * Usage: import_pfx.exe FILE PASSWORD. Prints "imported N" and exits 0, or names the failing
 * call and its code and exits 1. Built with mingw-w64 by the test; never shipped.
 */
#include <windows.h>
#include <wincrypt.h>
#include <stdio.h>

int wmain(int argc, wchar_t **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: import_pfx FILE PASSWORD\n");
    return 2;
  }
  HANDLE f = CreateFileW(argv[1], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
  if (f == INVALID_HANDLE_VALUE) {
    fprintf(stderr, "CreateFileW: %lu\n", GetLastError());
    return 1;
  }
  DWORD size = GetFileSize(f, NULL), got = 0;
  BYTE *buf = (BYTE *)HeapAlloc(GetProcessHeap(), 0, size);
  if (!ReadFile(f, buf, size, &got, NULL) || got != size) {
    fprintf(stderr, "ReadFile: %lu\n", GetLastError());
    return 1;
  }
  CloseHandle(f);
  CRYPT_DATA_BLOB blob = {size, buf};
  HCERTSTORE pfx = PFXImportCertStore(&blob, argv[2], CRYPT_USER_KEYSET | CRYPT_EXPORTABLE);
  if (!pfx) {
    fprintf(stderr, "PFXImportCertStore: 0x%08lX\n", GetLastError());
    return 1;
  }
  HCERTSTORE my = CertOpenStore(CERT_STORE_PROV_SYSTEM_W, 0, 0, CERT_SYSTEM_STORE_CURRENT_USER,
                                L"MY");
  if (!my) {
    fprintf(stderr, "CertOpenStore(MY): 0x%08lX\n", GetLastError());
    return 1;
  }
  int n = 0;
  PCCERT_CONTEXT ctx = NULL;
  while ((ctx = CertEnumCertificatesInStore(pfx, ctx)) != NULL) {
    DWORD cb = 0;
    if (!CertGetCertificateContextProperty(ctx, CERT_KEY_PROV_INFO_PROP_ID, NULL, &cb)) continue;
    if (!CertAddCertificateContextToStore(my, ctx, CERT_STORE_ADD_REPLACE_EXISTING, NULL)) {
      fprintf(stderr, "CertAddCertificateContextToStore: 0x%08lX\n", GetLastError());
      return 1;
    }
    n++;
  }
  CertCloseStore(my, 0);
  CertCloseStore(pfx, 0);
  printf("imported %d\n", n);
  return n > 0 ? 0 : 1;
}
