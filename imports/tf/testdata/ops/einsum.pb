
?
xPlaceholder*
dtype0* 
shape:ÿÿÿÿÿÿÿÿÿ
Ú
wConst*
dtype0*À
value¶B³" ´¤*?t<ã¿V=ä¾X4¿æü>£®°¿Vu¿ŞS¼¦ÃŸ¿î˜<[hÖ¿9Ëƒ¿SY¿‡ìÛ?¸a=Âß—¿ =¾>³á)?ò¨¾ø]?Çå>¡R¿ú¿cÈ¤¾Ü¸–?¾é¤?’µ+?2AÜ½•ªl¿x¿ÚôÎ?ÖV¼?2û¾?á‚ø¿§öÍ¿¡Ë¦¿Ô€½¿ÜÑ¿T½?
G
y/EinsumEinsumxw*
N*
T0*
equationabc,cde->abde
C
qPlaceholder*
dtype0*$
shape:ÿÿÿÿÿÿÿÿÿ
C
kPlaceholder*
dtype0*$
shape:ÿÿÿÿÿÿÿÿÿ
I
s/EinsumEinsumkq*
N*
T0*
equationaecd,abcd->acbe
C
pPlaceholder*
dtype0*$
shape:ÿÿÿÿÿÿÿÿÿ
I
z/EinsumEinsumpq*
N*
T0*
equationacbe,aecd->abcd
R
mConst*
dtype0*9
value0B." YßÍ¾ÚŠ?kåÛ?êDí¿æT¾mx¿É}9¿&¿
I
v/EinsumEinsumxm*
N*
T0*
equation...ij,jk->...ik
:
uConst*
dtype0*!
valueB"cÉ¾7Y¿ÖE¿
B
r/EinsumEinsumxu*
N*
T0*
equation
abc,b->a"ª