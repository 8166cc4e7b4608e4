const form = document.getElementById("upload-form");
const input = document.getElementById("pkcs12-upload");
const zone = document.getElementById("drop-zone");
if (form && input && zone) {
  input.addEventListener("change", () => {
    if (input.files.length) form.submit();
  });
  document.addEventListener("dragover", (e) => {
    e.preventDefault();
    zone.classList.add("over");
  });
  document.addEventListener("dragleave", () => zone.classList.remove("over"));
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    if (e.dataTransfer && e.dataTransfer.files.length) {
      input.files = e.dataTransfer.files;
      form.submit();
    }
  });
}
