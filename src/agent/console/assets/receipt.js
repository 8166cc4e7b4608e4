document.getElementById("print").onclick = () => print();
