/*
 * Test helper (tests/windows/update_test.ts): holds a file open as a Windows program that has it
 * open would (read access, sharing read only: no FILE_SHARE_DELETE), until its standard input
 * ends. Prints "held" once the file is open. Usage: hold_file.exe FILE. Never shipped.
 */
#include <windows.h>
#include <stdio.h>

int wmain(int argc, wchar_t **argv) {
  if (argc != 2) return 2;
  HANDLE f = CreateFileW(argv[1], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
  if (f == INVALID_HANDLE_VALUE) {
    fprintf(stderr, "CreateFileW: %lu\n", GetLastError());
    return 1;
  }
  printf("held\n");
  fflush(stdout);
  char buf[64];
  DWORD n;
  while (ReadFile(GetStdHandle(STD_INPUT_HANDLE), buf, sizeof buf, &n, NULL) && n > 0) {}
  CloseHandle(f);
  return 0;
}
