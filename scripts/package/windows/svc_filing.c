/*
 * svc-filing.exe: the Windows entry point of the package (docs/install.md § Windows: the installed
 * program). A GUI-subsystem program (no console window): it starts the bundled runtime
 * (runtime\deno.exe) with the app (app\svc-filing.js) hidden (CREATE_NO_WINDOW), its standard
 * output and error appended to the agent's log file (<data>\agent.log), its input empty.
 *
 *   svc-filing.exe                   start the agent with the tray icon (a double-click, the
 *                                    Start menu); the console opens once it answers
 *   svc-filing.exe agent             the same without opening the console (start at login)
 *   svc-filing.exe svc-agent://...   the same (a page's start link)
 *   svc-filing.exe <command> ...     any other command, hidden; exit code = the command's
 *
 * The data folder is SVC_DATA_DIR, else %LOCALAPPDATA%\svc-filing (as svc-filing.cmd does).
 * While the agent runs, the tray icon shows its state (GET /health, and the console's state
 * asked with the console secret of the data folder) and offers: open the console (a fresh
 * one-time link: `agent open`), the batch in progress with its count, stop the agent
 * (`agent stop`), and the console's language. The icon goes when the agent ends.
 *
 * Built by scripts/package/launcher_exe.ts with mingw-w64: SVC_RUN_FLAGS (the runtime's flags,
 * scripts/package/launchers.ts) and SVC_VERSION are defined on the command line.
 */
#define UNICODE
#define _UNICODE
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>
#include <winhttp.h>
#include <wchar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SVC_RUN_FLAGS
#error "SVC_RUN_FLAGS must be defined (scripts/package/launcher_exe.ts)"
#endif
#ifndef SVC_VERSION
#define SVC_VERSION L"0.0.0"
#endif

#define WM_TRAY (WM_APP + 1)
enum { ID_OPEN = 1, ID_STOP, ID_LANG_BG, ID_LANG_EN };
enum { ST_RUNNING = 0, ST_FILING, ST_ATTENTION, ST_STARTING };
#define LOG_ROTATE_BYTES (10 * 1024 * 1024)

static wchar_t g_dir[MAX_PATH];       /* the package folder, ending in a backslash */
static wchar_t g_data[MAX_PATH * 2];  /* the data folder */
static wchar_t g_log[MAX_PATH * 2];   /* <data>\agent.log */
static HANDLE g_agent;                /* the agent's process */
static HWND g_wnd;
static NOTIFYICONDATAW g_nid;
static HICON g_icons[4];
static int g_state = ST_STARTING;
static int g_seen_healthy;
static int g_open_when_ready;         /* run `agent open` once the agent answers */
static int g_lang;                    /* 0 = bg, 1 = en */
static wchar_t g_batch[160];          /* the batch line, empty when none */
static wchar_t g_attention[160];      /* why it needs attention, empty when nothing */
static UINT g_taskbar_created;

/* The texts of the tray, one language at a time (the console's). */
static const wchar_t *T[][2] = {
  {L"Агент за подаване към НАП", L"NRA filing agent"},
  {L"работи", L"running"},
  {L"подава", L"filing"},
  {L"иска внимание", L"needs attention"},
  {L"стартира", L"starting"},
  {L"Отвори конзолата", L"Open the console"},
  {L"Спри агента", L"Stop the agent"},
  {L"Език на конзолата", L"Console language"},
  {L"Подаване: %d от %d", L"Filing: %d of %d"},
  {L"версия", L"version"},
};
enum { S_TITLE, S_RUNNING, S_FILING, S_ATTENTION, S_STARTING, S_OPEN, S_STOP, S_LANG, S_BATCH,
       S_VERSION };
#define TX(i) (T[i][g_lang])

/* One line into the log (UTF-8), prefixed with the time and the launcher's name. */
static void log_line(const wchar_t *msg) {
  HANDLE f = CreateFileW(g_log, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE |
                         FILE_SHARE_DELETE, NULL, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  if (f == INVALID_HANDLE_VALUE) return;
  SYSTEMTIME t;
  GetSystemTime(&t);
  wchar_t line[1200];
  int n = swprintf(line, 1200, L"%04d-%02d-%02dT%02d:%02d:%02dZ svc-filing.exe: %ls\r\n",
                   t.wYear, t.wMonth, t.wDay, t.wHour, t.wMinute, t.wSecond, msg);
  char utf8[3600];
  int len = WideCharToMultiByte(CP_UTF8, 0, line, n, utf8, sizeof utf8, NULL, NULL);
  DWORD w;
  if (len > 0) WriteFile(f, utf8, (DWORD)len, &w, NULL);
  CloseHandle(f);
}

/* Start the runtime with the app and `args`, hidden; output appended to the log. */
static HANDLE spawn(const wchar_t *args) {
  SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
  HANDLE log = CreateFileW(g_log, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE |
                           FILE_SHARE_DELETE, &sa, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
  HANDLE nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                           OPEN_EXISTING, 0, NULL);
  size_t cap = wcslen(g_dir) * 2 + wcslen(SVC_RUN_FLAGS) + wcslen(args) + 100;
  wchar_t *cmd = calloc(cap, sizeof(wchar_t));
  wchar_t exe[MAX_PATH + 32];
  swprintf(exe, MAX_PATH + 32, L"%lsruntime\\deno.exe", g_dir);
  swprintf(cmd, cap, L"\"%ls\" %ls \"%lsapp\\svc-filing.js\" %ls", exe, SVC_RUN_FLAGS, g_dir,
           args);
  STARTUPINFOW si;
  ZeroMemory(&si, sizeof si);
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES | STARTF_USESHOWWINDOW;
  si.wShowWindow = SW_HIDE;
  si.hStdInput = nul;
  si.hStdOutput = log;
  si.hStdError = log;
  PROCESS_INFORMATION pi;
  BOOL ok = CreateProcessW(exe, cmd, NULL, NULL, TRUE,
                           CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT, NULL, g_dir, &si, &pi);
  DWORD err = GetLastError();
  if (log != INVALID_HANDLE_VALUE) CloseHandle(log);
  if (nul != INVALID_HANDLE_VALUE) CloseHandle(nul);
  wchar_t msg[1100];
  if (!ok) {
    swprintf(msg, 1100, L"cannot start %ls (Windows error %lu)", exe, err);
    log_line(msg);
    free(cmd);
    return NULL;
  }
  swprintf(msg, 1100, L"started %ls (pid %lu)", args, pi.dwProcessId);
  log_line(msg);
  free(cmd);
  CloseHandle(pi.hThread);
  return pi.hProcess;
}

/* Start a command and forget it (the tray's menu items). */
static void run_detached(const wchar_t *args) {
  HANDLE p = spawn(args);
  if (p) CloseHandle(p);
}

/* A file of the data folder as UTF-8 text (at most `cap`-1 bytes), or 0 when absent. */
static int read_data_file(const wchar_t *name, char *buf, DWORD cap) {
  wchar_t path[MAX_PATH * 2 + 64];
  swprintf(path, MAX_PATH * 2 + 64, L"%ls\\%ls", g_data, name);
  HANDLE f = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE |
                         FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
  if (f == INVALID_HANDLE_VALUE) return 0;
  DWORD n = 0;
  ReadFile(f, buf, cap - 1, &n, NULL);
  CloseHandle(f);
  buf[n] = 0;
  return 1;
}

/* A number after `"key":` in a JSON text, or -1. */
static long json_number(const char *json, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(json, pat);
  if (!p) return -1;
  p += strlen(pat);
  while (*p == ' ') p++;
  return (*p >= '0' && *p <= '9') ? strtol(p, NULL, 10) : -1;
}

/* GET http://127.0.0.1:<port><path> with an optional header; the body in `out`. */
static int http_get(int port, const wchar_t *path, const wchar_t *header, char *out, DWORD cap) {
  int status = 0;
  out[0] = 0;
  HINTERNET s = WinHttpOpen(L"svc-filing.exe", WINHTTP_ACCESS_TYPE_NO_PROXY, NULL, NULL, 0);
  if (!s) return 0;
  WinHttpSetTimeouts(s, 1000, 1000, 2000, 2000);
  HINTERNET c = WinHttpConnect(s, L"127.0.0.1", (INTERNET_PORT)port, 0);
  HINTERNET r = c ? WinHttpOpenRequest(c, L"GET", path, NULL, NULL, NULL, 0) : NULL;
  if (r && WinHttpSendRequest(r, header ? header : WINHTTP_NO_ADDITIONAL_HEADERS,
                              header ? (DWORD)-1 : 0, NULL, 0, 0, 0) &&
      WinHttpReceiveResponse(r, NULL)) {
    DWORD code = 0, size = sizeof code;
    WinHttpQueryHeaders(r, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER, NULL, &code,
                        &size, NULL);
    status = (int)code;
    DWORD got = 0, total = 0;
    while (total < cap - 1 && WinHttpReadData(r, out + total, cap - 1 - total, &got) && got) {
      total += got;
    }
    out[total] = 0;
  }
  if (r) WinHttpCloseHandle(r);
  if (c) WinHttpCloseHandle(c);
  WinHttpCloseHandle(s);
  return status;
}

static void tray_update(void) {
  static const int names[] = {S_RUNNING, S_FILING, S_ATTENTION, S_STARTING};
  g_nid.hIcon = g_icons[g_state];
  wchar_t tip[128];
  swprintf(tip, 128, L"%ls: %ls", TX(S_TITLE), TX(names[g_state]));
  if (g_state == ST_FILING && g_batch[0]) swprintf(tip, 128, L"%ls: %ls", TX(S_TITLE), g_batch);
  wcsncpy(g_nid.szTip, tip, 127);
  g_nid.uFlags = NIF_ICON | NIF_TIP | NIF_MESSAGE;
  Shell_NotifyIconW(NIM_MODIFY, &g_nid);
}

static void save_lang(void) {
  wchar_t path[MAX_PATH * 2 + 64];
  swprintf(path, MAX_PATH * 2 + 64, L"%ls\\console-language", g_data);
  HANDLE f = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
  if (f == INVALID_HANDLE_VALUE) return;
  DWORD w;
  WriteFile(f, g_lang ? "en" : "bg", 2, &w, NULL);
  CloseHandle(f);
}

/* The agent's state: /health, then the console's state (with the data folder's secret). */
static void poll(void) {
  char buf[4096];
  int port = read_data_file(L"agent.lock", buf, sizeof buf) ? (int)json_number(buf, "port") : -1;
  int healthy = port > 0 && http_get(port, L"/health", NULL, buf, sizeof buf) == 200 &&
                strstr(buf, "\"svc-agent\"") != NULL;
  int state = healthy ? ST_RUNNING : (g_seen_healthy ? ST_ATTENTION : ST_STARTING);
  g_batch[0] = 0;
  g_attention[0] = 0;
  char secret[256];
  if (healthy && read_data_file(L"console.secret", secret, sizeof secret)) {
    secret[strcspn(secret, "\r\n")] = 0;
    wchar_t header[400];
    swprintf(header, 400, L"x-svc-console-secret: %hs", secret);
    if (http_get(port, L"/console/state", header, buf, sizeof buf) == 200) {
      long done = json_number(buf, "done"), total = json_number(buf, "total");
      if (strstr(buf, "\"state\":\"filing\"")) state = ST_FILING;
      if (strstr(buf, "\"state\":\"attention\"")) state = ST_ATTENTION;
      if (done >= 0 && total > 0) swprintf(g_batch, 160, TX(S_BATCH), (int)done, (int)total);
    }
  }
  if (healthy && !g_seen_healthy) {
    g_seen_healthy = 1;
    log_line(L"the agent answers /health");
    if (g_open_when_ready) {
      g_open_when_ready = 0;
      run_detached(g_lang ? L"agent open --lang en" : L"agent open --lang bg");
    }
  }
  if (state != g_state || state == ST_FILING) {
    g_state = state;
    tray_update();
  }
}

static void show_menu(HWND w) {
  static const int names[] = {S_RUNNING, S_FILING, S_ATTENTION, S_STARTING};
  HMENU m = CreatePopupMenu(), lang = CreatePopupMenu();
  wchar_t head[200];
  swprintf(head, 200, L"%ls (%ls %ls): %ls", TX(S_TITLE), TX(S_VERSION), SVC_VERSION,
           TX(names[g_state]));
  AppendMenuW(m, MF_STRING | MF_GRAYED, 0, head);
  if (g_batch[0]) AppendMenuW(m, MF_STRING | MF_GRAYED, 0, g_batch);
  AppendMenuW(m, MF_SEPARATOR, 0, NULL);
  AppendMenuW(m, MF_STRING | MF_DEFAULT, ID_OPEN, TX(S_OPEN));
  AppendMenuW(lang, MF_STRING | (g_lang ? 0 : MF_CHECKED), ID_LANG_BG, L"Български");
  AppendMenuW(lang, MF_STRING | (g_lang ? MF_CHECKED : 0), ID_LANG_EN, L"English");
  AppendMenuW(m, MF_POPUP, (UINT_PTR)lang, TX(S_LANG));
  AppendMenuW(m, MF_SEPARATOR, 0, NULL);
  AppendMenuW(m, MF_STRING, ID_STOP, TX(S_STOP));
  POINT p;
  GetCursorPos(&p);
  SetForegroundWindow(w);
  TrackPopupMenu(m, TPM_RIGHTBUTTON, p.x, p.y, 0, w, NULL);
  PostMessageW(w, WM_NULL, 0, 0);
  DestroyMenu(m);
}

static LRESULT CALLBACK wnd_proc(HWND w, UINT msg, WPARAM wp, LPARAM lp) {
  if (msg == WM_TRAY) {
    if (LOWORD(lp) == WM_RBUTTONUP || LOWORD(lp) == WM_CONTEXTMENU) show_menu(w);
    if (LOWORD(lp) == WM_LBUTTONDBLCLK) PostMessageW(w, WM_COMMAND, ID_OPEN, 0);
    return 0;
  }
  if (msg == WM_COMMAND) {
    switch (LOWORD(wp)) {
    case ID_OPEN:
      run_detached(g_lang ? L"agent open --lang en" : L"agent open --lang bg");
      break;
    case ID_STOP:
      log_line(L"stop asked from the tray");
      run_detached(L"agent stop");
      break;
    case ID_LANG_BG:
    case ID_LANG_EN:
      g_lang = LOWORD(wp) == ID_LANG_EN;
      save_lang();
      tray_update();
      run_detached(g_lang ? L"agent open --lang en" : L"agent open --lang bg");
      break;
    }
    return 0;
  }
  if (msg == g_taskbar_created && msg) {
    Shell_NotifyIconW(NIM_ADD, &g_nid); /* Explorer restarted: the icon again */
    return 0;
  }
  return DefWindowProcW(w, msg, wp, lp);
}

/* The tray while the agent runs; the agent's exit code when it ends. */
static int run_tray(HINSTANCE inst) {
  for (int i = 0; i < 4; i++) {
    g_icons[i] = (HICON)LoadImageW(inst, MAKEINTRESOURCEW(i + 1), IMAGE_ICON,
                                   GetSystemMetrics(SM_CXSMICON), GetSystemMetrics(SM_CYSMICON),
                                   0);
  }
  WNDCLASSW wc;
  ZeroMemory(&wc, sizeof wc);
  wc.lpfnWndProc = wnd_proc;
  wc.hInstance = inst;
  wc.lpszClassName = L"SvcFilingTray";
  RegisterClassW(&wc);
  g_wnd = CreateWindowW(wc.lpszClassName, TX(S_TITLE), 0, 0, 0, 0, 0, NULL, NULL, inst, NULL);
  g_taskbar_created = RegisterWindowMessageW(L"TaskbarCreated");
  ZeroMemory(&g_nid, sizeof g_nid);
  g_nid.cbSize = sizeof g_nid;
  g_nid.hWnd = g_wnd;
  g_nid.uID = 1;
  g_nid.uFlags = NIF_ICON | NIF_TIP | NIF_MESSAGE;
  g_nid.uCallbackMessage = WM_TRAY;
  g_nid.hIcon = g_icons[ST_STARTING];
  swprintf(g_nid.szTip, 128, L"%ls: %ls", TX(S_TITLE), TX(S_STARTING));
  if (Shell_NotifyIconW(NIM_ADD, &g_nid)) log_line(L"tray icon added");
  else log_line(L"no tray icon (no notification area)");
  /* The agent's end, the tray's messages, and a look at its state every 1.5 s (with or without
     a window: under a session without a desktop the agent still runs and is waited for). */
  DWORD next = GetTickCount();
  int code = 0;
  for (;;) {
    DWORD now = GetTickCount();
    DWORD wait = (int)(next - now) > 0 ? next - now : 0;
    DWORD r = MsgWaitForMultipleObjects(1, &g_agent, FALSE, wait, QS_ALLINPUT);
    if (r == WAIT_OBJECT_0) {
      DWORD c = 0;
      GetExitCodeProcess(g_agent, &c);
      wchar_t msg[80];
      swprintf(msg, 80, L"the agent ended (exit code %lu)", c);
      log_line(msg);
      code = (int)c;
      break;
    }
    if (r == WAIT_TIMEOUT || (int)(GetTickCount() - next) >= 0) {
      poll();
      next = GetTickCount() + 1500;
    }
    MSG m;
    while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE)) {
      TranslateMessage(&m);
      DispatchMessageW(&m);
    }
  }
  Shell_NotifyIconW(NIM_DELETE, &g_nid);
  return code;
}

/* The command line after the program's own name. */
static const wchar_t *args_tail(void) {
  const wchar_t *c = GetCommandLineW();
  if (*c == L'"') {
    c++;
    while (*c && *c != L'"') c++;
    if (*c) c++;
  } else {
    while (*c && *c != L' ' && *c != L'\t') c++;
  }
  while (*c == L' ' || *c == L'\t') c++;
  return c;
}

static int exists(const wchar_t *p) { return GetFileAttributesW(p) != INVALID_FILE_ATTRIBUTES; }

int WINAPI wWinMain(HINSTANCE inst, HINSTANCE prev, PWSTR cmdline, int show) {
  (void)prev;
  (void)cmdline;
  (void)show;
  GetModuleFileNameW(NULL, g_dir, MAX_PATH);
  wchar_t *slash = wcsrchr(g_dir, L'\\');
  if (slash) slash[1] = 0;
  DWORD n = GetEnvironmentVariableW(L"SVC_DATA_DIR", g_data, MAX_PATH * 2);
  if (n == 0 || n >= MAX_PATH * 2) {
    wchar_t local[MAX_PATH];
    GetEnvironmentVariableW(L"LOCALAPPDATA", local, MAX_PATH);
    swprintf(g_data, MAX_PATH * 2, L"%ls\\svc-filing", local);
    SetEnvironmentVariableW(L"SVC_DATA_DIR", g_data);
  }
  wchar_t cache[MAX_PATH * 2 + 32];
  swprintf(cache, MAX_PATH * 2 + 32, L"%ls\\runtime-cache", g_data);
  CreateDirectoryW(g_data, NULL);
  CreateDirectoryW(cache, NULL);
  SetEnvironmentVariableW(L"DENO_DIR", cache);
  SetEnvironmentVariableW(L"DENO_NO_UPDATE_CHECK", L"1");
  SetEnvironmentVariableW(L"DENO_NO_PROMPT", L"1");
  swprintf(g_log, MAX_PATH * 2, L"%ls\\agent.log", g_data);
  char lang[8];
  g_lang = read_data_file(L"console-language", lang, sizeof lang) && strncmp(lang, "en", 2) == 0;

  int argc = 0;
  wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
  const wchar_t *tail = args_tail();
  int bare = argc < 2;
  int agent = bare || (argc == 2 && (wcscmp(argv[1], L"agent") == 0 ||
                                     _wcsnicmp(argv[1], L"svc-agent:", 10) == 0));
  if (!agent) {
    /* Any other command: hidden, its output in the log, its exit code ours. */
    HANDLE p = spawn(tail);
    if (!p) return 1;
    WaitForSingleObject(p, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(p, &code);
    return (int)code;
  }
  WIN32_FILE_ATTRIBUTE_DATA a;
  if (GetFileAttributesExW(g_log, GetFileExInfoStandard, &a) && a.nFileSizeHigh == 0 &&
      a.nFileSizeLow > LOG_ROTATE_BYTES) {
    wchar_t old[MAX_PATH * 2 + 8];
    swprintf(old, MAX_PATH * 2 + 8, L"%ls.1", g_log);
    MoveFileExW(g_log, old, MOVEFILE_REPLACE_EXISTING);
  }
  /* A double-click or the Start menu opens the console once the agent answers, unless this is
     the first start (which opens it itself) or an agent runs already (its second start does). */
  wchar_t first[MAX_PATH * 2 + 32];
  swprintf(first, MAX_PATH * 2 + 32, L"%ls\\first-start.json", g_data);
  g_open_when_ready = bare && exists(first);
  g_agent = spawn(bare ? L"agent" : tail);
  if (!g_agent) return 1;
  return run_tray(inst);
}
